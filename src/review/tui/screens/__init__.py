"""The screens of the Textual application."""
