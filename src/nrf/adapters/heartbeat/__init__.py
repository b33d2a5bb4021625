"""HeartbeatStore: shared memory between the supervisor and its worker process."""
