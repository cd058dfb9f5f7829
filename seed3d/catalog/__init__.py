"""The shared vocabulary at the ground floor: measurements and size words (``measure``). Every stage may import it;
it imports no stage."""
