import Handlebars from 'handlebars';
import { syntaxErrorAt, syntaxErrorOf } from './template-syntax-error';

export type RenderFn = (variables: Record<string, unknown>) => string;

/**
 * Handlebars for untrusted templates. A private environment (helpers registered elsewhere
 * in the process never reach it) with only the built-in block helpers and `lookup`:
 * `log` would write to our logs on every send, and partials and decorators are not part
 * of Herald's template language. The runtime's prototype-access guards stay at their
 * defaults, so `{{constructor}}` and friends render empty.
 */
const handlebars = Handlebars.create();
handlebars.unregisterHelper('log');

const COMPILE_OPTIONS = {
  // Unknown helpers fail here, at save time, not at send time for each recipient.
  knownHelpersOnly: true,
  knownHelpers: { log: false },
  // A missing variable renders empty rather than failing the send.
  strict: false,
} as const;

/**
 * The built-in helpers whose runtime throws when not given exactly this many arguments
 * (`{{lookup a}}` throws only when `a` is set: at send time, for some recipients).
 */
const HELPER_ARITY: ReadonlyMap<string, { count: number; message: string }> = new Map([
  ['if', { count: 1, message: '#if requires exactly one argument.' }],
  ['unless', { count: 1, message: '#unless requires exactly one argument.' }],
  ['with', { count: 1, message: '#with requires exactly one argument.' }],
  ['each', { count: 1, message: '#each requires exactly one argument.' }],
  ['lookup', { count: 2, message: 'lookup requires exactly two arguments.' }],
]);

export interface CompiledSource {
  render: RenderFn;
  /**
   * Whether a render may repeat part of the template: an `#each`, or a block named by a
   * variable (Handlebars iterates over an array there). Without one, rendering takes each
   * part of the template at most once: time linear in the template and the values merged.
   */
  loops: boolean;
}

/** Built-in blocks that render their body or their `else` once at most. */
const ONCE_BLOCKS = new Set(['if', 'unless', 'with']);

/**
 * Compiles one template field eagerly. Throws a TemplateSyntaxError: what is wrong, in words
 * for the template's author, and where (line and column) when the parser or compiler knows.
 */
export function compileSource(source: string, escapeHtml: boolean): CompiledSource {
  try {
    const syntax = new SupportedSyntax();
    syntax.accept(handlebars.parse(source));
    const template = handlebars.compile<Record<string, unknown>>(source, {
      ...COMPILE_OPTIONS,
      noEscape: !escapeHtml,
    });
    // Handlebars compiles lazily on the first call; one render over no data forces it now.
    template({});
    return { render: (variables) => template(variables), loops: syntax.loops };
  } catch (error) {
    // Out of stack on deep nesting: the worker says so in its own words.
    if (error instanceof RangeError) throw error;
    throw syntaxErrorOf(error, source);
  }
}

/** Blocks nested deeper than this make compiling slow (nested programs): see compileSmall. */
const SMALL_DEPTH = 10;

/**
 * Compiles a field that is known to be small (the caller bounds its length and merge fields)
 * when doing so here is quick and the result straight-line: undefined when it loops, nests
 * blocks deeper than SMALL_DEPTH (chained `else if` included), or fails to compile at all;
 * the caller then leaves it to a template worker, which also words the errors.
 */
export function compileSmall(source: string, escapeHtml: boolean): RenderFn | undefined {
  try {
    const syntax = new SupportedSyntax();
    syntax.accept(handlebars.parse(source));
    if (syntax.loops || syntax.deepest > SMALL_DEPTH) return undefined;
    const template = handlebars.compile<Record<string, unknown>>(source, {
      ...COMPILE_OPTIONS,
      noEscape: !escapeHtml,
    });
    template({});
    return (variables) => template(variables);
  } catch {
    return undefined;
  }
}

/**
 * Rejects what would otherwise only fail while sending, when the branch holding it is
 * taken: partials, decorators, and built-in helpers called with the wrong arity.
 */
class SupportedSyntax extends Handlebars.Visitor {
  /** A block that may render its body more than once was seen (see CompiledSource). */
  loops = false;
  /** How deeply blocks nest (a chained `else if` is a block inside the `else`). */
  deepest = 0;
  private depth = 0;

  override PartialStatement(node: hbs.AST.PartialStatement): void {
    throw syntaxErrorAt('Partials ({{> name}}) are not supported.', node);
  }

  override PartialBlockStatement(node: hbs.AST.PartialBlockStatement): void {
    throw syntaxErrorAt('Partials ({{#> name}}) are not supported.', node);
  }

  override Decorator(node: hbs.AST.Decorator): void {
    throw syntaxErrorAt('Decorators are not supported.', node);
  }

  override DecoratorBlock(node: hbs.AST.DecoratorBlock): void {
    throw syntaxErrorAt('Decorators are not supported.', node);
  }

  override BlockStatement(node: hbs.AST.BlockStatement): void {
    checkArity(node);
    const name = node.path.type === 'PathExpression' ? node.path.original : '';
    if (!ONCE_BLOCKS.has(name)) this.loops = true;
    this.deepest = Math.max(this.deepest, ++this.depth);
    super.BlockStatement(node);
    this.depth--;
  }

  override MustacheStatement(node: hbs.AST.MustacheStatement): void {
    checkArity(node);
    super.MustacheStatement(node);
  }

  override SubExpression(node: hbs.AST.SubExpression): void {
    checkArity(node);
    super.SubExpression(node);
  }
}

function checkArity(
  node: hbs.AST.MustacheStatement | hbs.AST.BlockStatement | hbs.AST.SubExpression,
) {
  const name =
    node.path.type === 'PathExpression' ? (node.path as hbs.AST.PathExpression).original : '';
  const arity = HELPER_ARITY.get(name);
  if (arity && node.params.length !== arity.count) throw syntaxErrorAt(arity.message, node);
}
