"""JobQueue: Amazon SQS."""
