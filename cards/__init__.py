"""The built-in collection: YAML card files shipped inside the wheel."""
