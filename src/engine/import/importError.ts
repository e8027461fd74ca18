/** An import that cannot run on its input (missing file, wrong format): the CLI prints its message on one line. */
export class ImportError extends Error {}
