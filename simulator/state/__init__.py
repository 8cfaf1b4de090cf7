"""State: plain records and the store that holds them."""
