"""A helper that works: ready at once, each line plays for --line-seconds, stop cuts it off."""

import fake

args = fake.arguments()
fake.ready(args)
fake.serve(args.engine, args.line_seconds)
