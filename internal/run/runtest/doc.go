// Package runtest holds the test backend of the packages above
// internal/run (internal/api, cmd/desk): Lines, a line-oriented language
// whose commands write, read, wait and exit in ways a test can check
// exactly; and CPULimit, the check of run's CPU limit that each backend's
// TestCPULimit runs with its own busy loops. Only tests import it
// (internal/archtest enforces that).
//
// internal/run's own tests keep their own backend (mini, a superset with
// gates, panics and store operations): a test inside package run cannot
// import a package that imports run. The commands both have are in
// runtest/linecmd, which imports only the standard library.
package runtest
