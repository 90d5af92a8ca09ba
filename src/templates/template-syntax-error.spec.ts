import { compileSource } from './handlebars-source';
import { positionOf, TemplateSyntaxError } from './template-syntax-error';

/** What compiling `source` throws (it must throw). */
function failureOf(source: string): TemplateSyntaxError {
  try {
    compileSource(source, true);
  } catch (error) {
    expect(error).toBeInstanceOf(TemplateSyntaxError);
    return error as TemplateSyntaxError;
  }
  throw new Error(`${JSON.stringify(source)} compiled`);
}

describe('template syntax errors: where, and what, in the author’s words', () => {
  it.each([
    // [what, source, line, column, words of the reason]
    ['a tag never closed', 'Hi {{first_name', 1, 4, 'never closed with }}'],
    ['a tag never closed, later on', '<p>\n  x {{foo bar}\n</p>', 2, 5, 'never closed with }}'],
    ['a tag cut off at the end', 'a\n{{foo}}{{', 2, 10, 'ends inside a {{…}} tag'],
    ['a stray character', '<p>\n  {{foo ]}}', 2, 9, '“]” is not expected'],
    ['a ( not closed', '{{foo (bar}}', 1, 11, 'a ( is not closed'],
    ['a quote not closed', 'x\n {{foo "bar}}', 2, 8, 'quoted value is not closed'],
    ['a missing value', 'a {{foo bar=}}', 1, 13, 'missing before }}'],
    ['{{{ closed by }}', 'abc {{{foo}}', 1, 11, 'must close with }}}'],
    [
      'a close without an open',
      'one\ntwo {{/if}}',
      2,
      5,
      '{{/if}} closes a block that was never opened',
    ],
    ['a comment never closed', 'abc\n  xx {{!-- unterminated', 2, 6, 'cannot be read'],
    ['a mismatched block', 'line1\n  {{#if x}}y{{/each}}', 2, 6, '{{#if}} is closed by {{/each}}'],
    ['an unknown helper', 'é {{shout name}}', 1, 3, 'unknown helper shout'],
    ['a partial', '<p>\n\t{{> footer}}', 2, 2, 'Partials'],
    ['a helper with the wrong arity', 'x\n\n   {{#each}}{{/each}}', 3, 4, '#each requires'],
  ])('%s', (_, source, line, column, words) => {
    const error = failureOf(source);
    expect(error.position).toEqual({ line, column });
    expect(error.reason).toContain(words);
    expect(error.message).toBe(`On line ${line}, column ${column}: ${error.reason}`);
  });

  it('points at the block left open, not at the end of the template', () => {
    const source = '<h1>Hi</h1>\n<p>{{#if vip}}VIP</p>\n{{!-- {{#each x}} --}}\n<p>bye</p>\n';
    const error = failureOf(source);
    expect(error.position).toEqual({ line: 2, column: 4 });
    expect(error.reason).toBe('{{#if}} is never closed; add {{/if}} where it ends.');
  });

  it('names the innermost block left open', () => {
    const error = failureOf('{{#with a}}\n  {{#each b}}{{#if c}}x{{/if}}\n');
    expect(error.position).toEqual({ line: 2, column: 3 });
    expect(error.reason).toContain('{{#each}} is never closed');
  });

  it('leads to the open block rather than past the end of the template', () => {
    const error = failureOf('a\nb {{#if x}}\n');
    expect(error.position).toEqual({ line: 2, column: 3 });
  });

  it('counts lines across \\r\\n, \\r and \\n as the parser does', () => {
    expect(positionOf('a\r\nb\rc\nd', 7)).toEqual({ line: 4, column: 1 });
    expect(positionOf('abc', 2)).toEqual({ line: 1, column: 3 });
    expect(failureOf('a\r\nb\r\n{{foo "x}}').position).toEqual({ line: 3, column: 7 });
  });

  it('keeps the position clear of any earlier failure in the same thread', () => {
    failureOf('x\n\n\n\n{{#if}}');
    expect(failureOf('{{foo').position).toEqual({ line: 1, column: 1 });
  });
});
