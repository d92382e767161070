"""Reference implementations, one module per assignment."""
