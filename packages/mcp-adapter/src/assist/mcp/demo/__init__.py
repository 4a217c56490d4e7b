"""`assist demo`: the sample meeting, end to end, with a stand-in agent or a real one."""
