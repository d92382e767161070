"""Hidden tests, one package per assignment."""
