"""Keys, HD derivation and address formats."""
