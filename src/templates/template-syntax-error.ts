import Handlebars from 'handlebars';

/** A place in a template's source, as editors count: both from 1, columns in UTF-16 units. */
export interface SourcePosition {
  line: number;
  column: number;
}

/**
 * A template field that does not compile: the reason in words a template's author knows,
 * and where it is when the compiler could tell.
 */
export class TemplateSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly position?: SourcePosition,
  ) {
    super(
      position
        ? `On line ${position.line}, column ${position.column}: ${reason}`
        : reason.charAt(0).toUpperCase() + reason.slice(1),
    );
  }
}

/** The jison lexer Handlebars parses with: one per process (thread), left as the parse ended. */
interface LexerState {
  yylloc?: { first_line: number; first_column: number };
  /** The text of the token it failed on. */
  match?: string;
  /** What it had read, that token included. */
  matched?: string;
  /** What it had not read yet. */
  _input?: string;
}

const lexer = (): LexerState | undefined =>
  (Handlebars as unknown as { Parser?: { lexer?: LexerState } }).Parser?.lexer;

const PARSER_ERROR = /^(?:Parse|Lexical) error on line \d+/;
const EXPECTING = /Expecting (.+), got '([^']+)'\s*$/;
/** The ` - line:column` Handlebars appends to the message of an error it has a node for. */
const LOCATION_SUFFIX = / - \d+:\d+$/;

/**
 * What Handlebars threw while parsing or compiling `source`, as a TemplateSyntaxError. Must
 * run right after the failed parse, on the same thread: the parser's own errors carry no
 * position, the lexer it leaves behind does.
 */
export function syntaxErrorOf(error: unknown, source: string): TemplateSyntaxError {
  if (error instanceof TemplateSyntaxError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (PARSER_ERROR.test(message)) return parserError(message, source, lexer());
  if (error instanceof Handlebars.Exception) {
    const { lineNumber, column } = error as { lineNumber?: unknown; column?: unknown };
    const reason = compilerReason(message.replace(LOCATION_SUFFIX, ''));
    if (typeof lineNumber === 'number' && typeof column === 'number') {
      return new TemplateSyntaxError(reason, { line: lineNumber, column: column + 1 });
    }
    return new TemplateSyntaxError(reason);
  }
  return new TemplateSyntaxError(message);
}

/** A syntax error at a node of the parsed template (Handlebars counts columns from 0). */
export function syntaxErrorAt(reason: string, node: hbs.AST.Node): TemplateSyntaxError {
  return new TemplateSyntaxError(reason, {
    line: node.loc.start.line,
    column: node.loc.start.column + 1,
  });
}

function parserError(
  message: string,
  source: string,
  state: LexerState | undefined,
): TemplateSyntaxError {
  const at = state?.yylloc
    ? { line: state.yylloc.first_line, column: state.yylloc.first_column + 1 }
    : undefined;
  const expecting = EXPECTING.exec(message);
  if (!expecting) {
    // A lexical error: text no rule of the lexer reads, such as a comment never closed.
    return new TemplateSyntaxError(
      'this {{ cannot be read; is a comment ({{!-- … --}}) or a tag left open?',
      at,
    );
  }
  const expected = new Set(expecting[1].split(', ').map((token) => token.replace(/'/g, '')));
  const got = expecting[2];
  if (got === 'EOF' && expected.has('OPEN_ENDBLOCK')) {
    const open = unclosedBlock(source);
    if (open) {
      return new TemplateSyntaxError(
        `{{${open.opener}${open.name}}} is never closed; add {{/${open.name}}} where it ends.`,
        open.position,
      );
    }
    return new TemplateSyntaxError('a block is never closed; a {{/…}} is missing.', at);
  }
  if (got === 'EOF') {
    return new TemplateSyntaxError('the template ends inside a {{…}} tag; close it with }}.', at);
  }
  const text = state?.match || got;
  if (got === 'OPEN_ENDBLOCK') {
    const name = /^\s*([^\s}~]+)/.exec(state?._input ?? '')?.[1] ?? '…';
    return new TemplateSyntaxError(`{{/${name}}} closes a block that was never opened.`, at);
  }
  if (text === '"' || text === "'") {
    return new TemplateSyntaxError(`a quoted value is not closed; add the closing ${text}.`, at);
  }
  if (got === 'INVALID' && !`${state?.match ?? ''}${state?._input ?? ''}`.includes('}}')) {
    // At the tag's {{, not at the word the parser stumbled on inside it.
    const token = (state?.matched?.length ?? 0) - (state?.match?.length ?? 0);
    const tag = source.lastIndexOf('{{', token);
    return new TemplateSyntaxError(
      'this {{…}} tag is never closed with }}.',
      tag >= 0 ? positionOf(source, tag) : at,
    );
  }
  if (got === 'CLOSE' && expected.has('CLOSE_SEXPR')) {
    return new TemplateSyntaxError('a ( is not closed with ) before }}.', at);
  }
  if (got === 'CLOSE' && expected.has('CLOSE_UNESCAPED')) {
    return new TemplateSyntaxError('a tag opened with {{{ must close with }}}.', at);
  }
  if (got === 'CLOSE') {
    return new TemplateSyntaxError('a name or value is missing before }}.', at);
  }
  return new TemplateSyntaxError(`“${text}” is not expected here.`, at);
}

/** Handlebars' compiler messages, in words for a template's author. */
function compilerReason(message: string): string {
  const mismatch = /^(\S+) doesn't match (\S+)$/.exec(message);
  if (mismatch) {
    return `{{#${mismatch[1]}}} is closed by {{/${mismatch[2]}}}; a block closes with its own name.`;
  }
  const helper = /unknown helper (\S+)$/.exec(message);
  if (helper) {
    return `unknown helper ${helper[1]}; the helpers are if, unless, each, with and lookup.`;
  }
  return message;
}

/**
 * The innermost block opened and never closed, found by a scan of the tags (comments
 * skipped); the parser only knows that the template ended too soon.
 */
function unclosedBlock(
  source: string,
): { opener: string; name: string; position: SourcePosition } | undefined {
  const tags = /\{\{!--[\s\S]*?--~?\}\}|\{\{~?!.*?\}\}|\{\{~?\s*([#^]|\/)\s*([^\s}~()]+)/g;
  const open: { opener: string; name: string; index: number }[] = [];
  for (let tag = tags.exec(source); tag; tag = tags.exec(source)) {
    if (!tag[1]) continue;
    if (tag[1] === '/') open.pop();
    else open.push({ opener: tag[1], name: tag[2], index: tag.index });
  }
  const innermost = open.pop();
  if (!innermost) return undefined;
  return { ...innermost, position: positionOf(source, innermost.index) };
}

/** The line and column of a character offset, counting line breaks as the parser does. */
export function positionOf(source: string, offset: number): SourcePosition {
  let line = 1;
  let lineStart = 0;
  const breaks = /\r\n?|\n/g;
  for (
    let found = breaks.exec(source);
    found && found.index < offset;
    found = breaks.exec(source)
  ) {
    line++;
    lineStart = found.index + found[0].length;
  }
  return { line, column: offset - lineStart + 1 };
}
