"""assist's conformance kits, for the tests of engine and recogniser packages.

`voices.EngineConformance` checks a voice engine (group `assist.voices`) and
`recognisers.RecogniserConformance` a speech recogniser (group `assist.stt`): subclass one in a
test module and override its class-scoped fixture with one that builds what is checked. The
pytest plugin (`plugin`, registered through the `pytest11` entry point) makes pytest rewrite the
kits' asserts, so a failing check shows the values it compared.
"""
