package mediatype

import (
	"net/http"
	"path"
	"strings"
)

// SniffLen is how many bytes of content Sniff looks at (more are ignored).
const SniffLen = 512

// Unknown is the type of content nothing names: bytes.
const Unknown = "application/octet-stream"

// byExt are the types of common extensions (lower case, with the dot).
var byExt = map[string]string{
	".txt": "text/plain; charset=utf-8", ".md": "text/markdown; charset=utf-8", ".html": "text/html; charset=utf-8",
	".htm": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8", ".csv": "text/csv; charset=utf-8",
	".xml": "text/xml; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
	".ts": "text/x-typescript; charset=utf-8", ".json": "application/json", ".yaml": "application/yaml",
	".yml": "application/yaml", ".toml": "application/toml", ".go": "text/x-go; charset=utf-8",
	".py": "text/x-python; charset=utf-8", ".rs": "text/x-rust; charset=utf-8", ".c": "text/x-c; charset=utf-8",
	".h": "text/x-c; charset=utf-8", ".java": "text/x-java; charset=utf-8", ".sh": "text/x-shellscript; charset=utf-8",
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
	".svg": "image/svg+xml", ".ico": "image/x-icon", ".pdf": "application/pdf", ".zip": "application/zip",
	".gz": "application/gzip", ".tgz": "application/gzip", ".tar": "application/x-tar", ".wasm": "application/wasm",
	".mp3": "audio/mpeg", ".wav": "audio/wav", ".mp4": "video/mp4", ".webm": "video/webm",
	".woff": "font/woff", ".woff2": "font/woff2",
}

// ByName returns the type of a file named name by its extension (case does
// not matter), or "" when the table has none.
func ByName(name string) string {
	return byExt[strings.ToLower(path.Ext(name))]
}

// Sniff returns the type of content that begins with head (only its first
// SniffLen bytes count). It always answers: Unknown when nothing matches.
func Sniff(head []byte) string {
	return http.DetectContentType(head)
}

// Of returns the type of the file named name whose content begins with head:
// ByName's answer when there is one, else Sniff(head) when head is not nil,
// else "" (unknown: the content was not read).
func Of(name string, head []byte) string {
	if t := ByName(name); t != "" {
		return t
	}
	if head != nil {
		return Sniff(head)
	}
	return ""
}
