"""Network layer: discovery, protocol, host, client, fair shuffle."""
