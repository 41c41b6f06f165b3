// Package jsonlimit bounds the nesting depth of JSON text before it is
// decoded: a request body of `[[[[...` is refused in one pass over its bytes,
// with no allocation, instead of reaching a decoder (encoding/json stops at
// depth 10,000 only after building that much state; other decoders, such as
// a JavaScript engine's JSON.parse, may recurse on it). Size is bounded by
// the caller (http.MaxBytesReader); depth here.
package jsonlimit
