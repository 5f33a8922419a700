import { describe, expect, it } from 'vitest';
import { parseProperties } from './properties.js';

const parse = (text: string) => Object.fromEntries(parseProperties(text));

/** The rules of java.util.Properties.load(Reader), as Kafka reads server.properties. */
describe('properties parsing (Java rules)', () => {
  it('separators: "=", ":" or whitespace, with whitespace around them skipped', () => {
    expect(parse('broker.id   = 7\na:1\nb 2\nc\t=\t3\nd  :  4\n')).toEqual({ 'broker.id': '7', a: '1', b: '2', c: '3', d: '4' });
  });

  it('only the first "=" or ":" after the key separates; a second one belongs to the value', () => {
    expect(parse('k3  ==x\nk4 := y\nurl=http://h:1/p?a=b\n')).toEqual({ k3: '=x', k4: '= y', url: 'http://h:1/p?a=b' });
  });

  it('keeps trailing whitespace of a value, drops leading whitespace of a line', () => {
    expect(parse('   padded = value  \n')).toEqual({ padded: 'value  ' });
  });

  it('comment lines start with # or ! after optional whitespace; a key alone has an empty value', () => {
    expect(parse('# c\n  ! c2\nempty\n\nk=v # not a comment\n')).toEqual({ empty: '', k: 'v # not a comment' });
  });

  it('a backslash at the end of a line continues it, dropping the next line\'s leading whitespace', () => {
    expect(parse('zookeeper.connect=z1:2181,\\\n    z2:2181,\\\n\tz3:2181\n')).toEqual({ 'zookeeper.connect': 'z1:2181,z2:2181,z3:2181' });
    // An even number of backslashes is an escaped backslash, not a continuation.
    expect(parse('path=C:\\\\dir\\\\\nnext=1\n')).toEqual({ path: 'C:\\dir\\', next: '1' });
  });

  it('escapes: \\t \\n \\uXXXX, escaped separators and spaces in keys, other escaped chars stand for themselves', () => {
    expect(parse('uni=\\u00e9t\\u00e9\ntab=a\\tb\nkey\\=x=1\nsp\\ ace=2\nq=\\q\n')).toEqual({ uni: 'été', tab: 'a\tb', 'key=x': '1', 'sp ace': '2', q: 'q' });
  });

  it('CRLF and CR line ends; the last duplicate wins', () => {
    expect(parse('a=1\r\nb=2\rc=3\na=4')).toEqual({ a: '4', b: '2', c: '3' });
  });
});
