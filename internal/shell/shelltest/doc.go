// Package shelltest holds what the shell backend's tests and the
// interpreter table's tests (internal/shell, internal/shell/interptest)
// share: the interpreter table's rows and their loader (LoadTable), a
// fixture written on the host (WriteHostFixture) and the real bash run as
// the oracle (Bash). Only tests import it (internal/archtest).
package shelltest
