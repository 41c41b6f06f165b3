package shell

// tableLang holds more rows on the bash language itself: quoting,
// expansions, arrays, arithmetic, here-docs, functions, traps, set -e/-u,
// pipefail, case, read, subshells and redirections.
var tableLang = []row{}
