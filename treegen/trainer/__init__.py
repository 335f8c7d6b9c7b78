"""Placeholder package (created by the foundation so packaging works); its issue fills it in."""
