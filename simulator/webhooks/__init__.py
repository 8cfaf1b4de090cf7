"""Activity events for receivers: webhook deliveries and their signatures."""
