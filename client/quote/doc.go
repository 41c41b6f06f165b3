// Package quote is desk's one escaping of file names and paths, used on
// every surface (the HTTP API's JSON, the agent tools' text and structured
// output, MCP, the CLI) so that any name the store holds — bytes that are not
// UTF-8, control characters, a newline — is shown losslessly, cannot forge a
// line or an entry of a listing, and can be given back as input.
//
// A name is shown as itself when it is valid UTF-8, every rune is printable
// (strconv.IsPrint: no control, format or separator characters other than
// the space) and it does not begin with a double quote. Otherwise it is shown
// as a Go double-quoted string (strconv.Quote): `"a\nb"`, `"caf\xe9"`,
// `"\"x"`. A path is quoted element by element, so its slashes stay slashes
// (`/workspace/"a\nb"/c.txt`) and a listed name joined to its directory is a
// valid input path.
//
// Parsing is the inverse: an element that begins with a double quote must be
// a well-formed Go double-quoted string and is unquoted (to a name without
// NUL or slash, not "." or ".."); any other element is taken as it is. So
// Parse(Quote(b)) == b for every name b. docs/decisions.md compares this
// with git's core.quotePath, GNU ls's --quoting-style and strconv.Quote.
package quote
