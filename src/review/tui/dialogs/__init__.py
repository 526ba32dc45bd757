"""The dialogs of the Textual application, on one shared frame."""
