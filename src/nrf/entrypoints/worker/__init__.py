"""The queue worker: supervisor, worker process, its loop and its job processes."""
