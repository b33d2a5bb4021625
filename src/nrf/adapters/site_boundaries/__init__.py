"""Reading the sites' red-line boundaries from files, and a job's boundary from S3."""
