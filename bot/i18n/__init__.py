"""Texts in every language: the gettext catalogues, the text lookup and the slash-command
translator."""
