"""The firmware examples' sources, shipped as package data (treegen.firmware_examples)
so that ``treegen verify --on`` compiles these very files from an installed wheel."""
