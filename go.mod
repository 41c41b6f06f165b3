module github.com/desk-dev/desk

go 1.26.8

require (
	github.com/ncruces/go-sqlite3 v0.37.0
	golang.org/x/sys v0.49.0
)

require (
	github.com/ncruces/go-sqlite3-wasm/v6 v6.5.35401 // indirect
	github.com/ncruces/julianday v1.0.0 // indirect
)
