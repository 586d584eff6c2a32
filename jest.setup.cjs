// Keep Nest's startup logs out of test output.
process.env.TURNS_LOG = 'silent';
