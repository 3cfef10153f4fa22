"""Provider tests against loopback servers speaking each API's wire protocol."""
