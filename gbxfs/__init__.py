"""gbxfs: Nadeo GameBox data as a read-only filesystem."""
