module github.com/desk-dev/desk

go 1.26.8

require (
	github.com/benhoyt/goawk v1.31.0
	github.com/hanwen/go-fuse/v2 v2.12.1
	github.com/itchyny/gojq v0.12.20
	github.com/ncruces/go-sqlite3 v0.37.0
	github.com/prometheus/client_golang v1.25.0
	golang.org/x/sys v0.49.0
)

require github.com/itchyny/timefmt-go v0.1.9 // indirect

require (
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/ncruces/go-sqlite3-wasm/v6 v6.5.35401 // indirect
	github.com/ncruces/julianday v1.0.0 // indirect
	github.com/prometheus/client_model v0.6.3 // indirect
	github.com/prometheus/common v0.72.0 // indirect
	github.com/prometheus/procfs v0.22.0 // indirect
	golang.org/x/term v0.45.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
	mvdan.cc/sh/v3 v3.14.1
)
