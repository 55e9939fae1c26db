// Replaced by the packet engine.
