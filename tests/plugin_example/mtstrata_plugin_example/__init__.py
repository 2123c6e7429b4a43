"""An example mtstrata plugin (see pyproject.toml's entry points)."""
