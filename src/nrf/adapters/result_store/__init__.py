"""ResultStore and JobClaims: a local directory or S3."""
