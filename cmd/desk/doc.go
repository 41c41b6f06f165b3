// Command desk gives AI agents a persistent computer: a workspace whose files
// live in one SQLite database.
//
// The binary is a thin layer over the internal packages and the Go client;
// each subcommand lives in its own file and parses its flags with the
// standard flag package. docs/cli.md is the user's manual.
//
//	desk serve                      run the server (serve.go): host + tokens + HTTP API
//	desk ws create|ls|stats|rm      workspaces on the server (ws.go)
//	desk token mint|ls|revoke       workspace tokens (token.go)
//	desk exec WS [flags] -- CMD...  run a command (or --file PATH; -w WS too), streaming it, printing its value (exec.go)
//	desk attach WS EXEC_ID          follow an execution again (attach.go)
//	desk ps WS [--all]              running executions, services marked (ps.go)
//	desk kill WS EXEC_ID [--signal] signal an execution (kill.go)
//	desk shell WS                   bash on a terminal in the workspace's sandbox, over a WebSocket (shell.go)
//	desk changes WS [--follow]      the change journal (changes.go)
//	desk mount WS DIR [flags]       the workspace through FUSE on a directory, until Ctrl-C (mount.go)
//	desk fs -w WS VERB [ARGS]       files of a workspace on the server
//	desk fs -db PATH VERB [ARGS]    files of a workspace database, directly
//	desk cp SRC DEST                host <-> workspace copies, docker cp's rules (cp.go)
//	desk artifact create|token|ls|revoke|rm  published git repositories and their tokens (artifact.go)
//	desk bench fs [flags]           the sandbox's /workspace against tmpfs and the disk (bench.go)
//	desk help [COMMAND]             usage
//
// # desk serve's fair shares
//
// fair.go defines the --max-* bound flags and --max-service-life, turns
// them into a fairConfig (per-workspace and per-token fair.Limits, the
// server-wide bounds), and wires it: without workers, one fair.Ledger and
// a fair.Pool in the server's process; with workers, the front's
// worker.Pool gets the Pool and each worker (--fair, the configuration as
// JSON) counts its workspace's shares in a Ledger of its own and asks the
// front for server-wide slots over its control channel (worker.Slots). The
// workspaces' Admit (fairConfig.admit) counts an execution as running, a
// service or js, and holds the sandbox of a sandbox execution. --settings
// FILE applies a JSON object of flag names to values before the flags are
// read.
//
// # Client commands
//
// Everything but serve, fs -db and bench talks to a server through package client.
// The server's URL and token come from --url/--token, else $DESK_URL and
// $DESK_TOKEN, else the config file desk serve writes for the local user
// (config.go; $DESK_CONFIG, else $XDG_CONFIG_HOME/desk/config.json or
// ~/.config/desk/config.json). Each is resolved separately; the config
// file's token is only ever sent to the config file's URL.
//
// # desk fs
//
// The fs verbs are written once against fileStore (fs_store.go), which a
// local database (localStore, over *vfs.FS) and a remote workspace
// (remoteStore, over the client, fs_remote.go) implement. import and export
// use internal/fsio directly on a database (-db) and the API's tree
// endpoints over -w (a host directory archived on the fly by
// fsio.ArchiveHost and streamed through a pipe); check needs the database
// itself and refuses -w; ls -l and stat print what the API reports (no
// owner, blocks, atime/ctime/btime or xattrs). Path arguments go through
// wsPath, which is wspath.Resolve: a relative path is taken from
// /workspace, as on every surface; opening a database file for writing
// makes /workspace when it is missing (wspath.Ensure), as a server's
// workspace has it from its first open. Progress (progress.go) shows
// on standard error when it is a terminal, one line rewritten in place;
// --progress forces a line a second.
//
// # desk cp
//
// cp.go resolves docker cp's rules from a stat of each side (remoteStore's
// Stat follows symlinks as the kernel would), then makes one tree upload
// (ArchiveHost → PUT tree) or one tree download unpacked by
// fsio.ExtractHost through a staging directory; a single file is
// downloaded as a one-entry archive into a staging directory beside its
// target and renamed onto it.
//
// # desk exec
//
// desk exec starts a foreground execution (not with --detach or --service):
// the server kills it once nobody has followed it for its grace period, so a
// desk exec that is killed leaves nothing running. Its standard input, unless
// it is a terminal (or --stdin/--stdin=false say otherwise), is streamed with
// stdin_stream: a goroutine copies it to PUT …/stdin (Client.WriteStdin) while
// the main one follows the events; a failure of that copy is reported only
// while the execution still runs.
//
// # Errors and exit status
//
// 0 on success; 1 when the operation failed, with "desk CMD: message (CODE)"
// on standard error, CODE being the POSIX errno name or the API's code
// (not_found, bad_name, forbidden, ...); 2 for a usage error. desk exec and
// desk attach exit with the execution's exit code (124 timed out, 125 the
// backend could not run it, 128+N killed by signal N). desk mount exits 0
// when interrupted or unmounted from outside, 1 when the mount could not
// be made or the server ended it.
//
// main only converts run's result to an exit status, so tests drive the whole
// CLI in-process through run (or a command's function, with a context).
package main
