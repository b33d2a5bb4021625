"""Notifier: GOV.UK Notify, Amazon SES and the log."""
