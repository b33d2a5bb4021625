"""What the commands print for a person: result tables, status reports and progress lines."""
