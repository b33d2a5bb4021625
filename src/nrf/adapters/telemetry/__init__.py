"""What the processes tell their operators: JSON log lines, EMF metrics and their times."""
