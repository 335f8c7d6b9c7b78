"""Jinja2 templates for the generated C (shipped as package data: treegen.templates)."""
