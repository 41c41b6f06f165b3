// Package mediatype names the media type (MIME type) of a workspace file, so
// that every surface that serves one (the HTTP API's file reads, MCP
// resources) says the same: first by the name's extension, from a fixed
// table (not the machine's mime.types, so the answer does not depend on the
// host), then by the content's first SniffLen bytes (the WHATWG sniffing
// algorithm of net/http.DetectContentType), which tells text
// ("text/plain; charset=utf-8") from binary ("application/octet-stream")
// and recognises images, archives, PDF, HTML and more by their signatures.
//
// It is layer 0 and imports only the standard library.
package mediatype
