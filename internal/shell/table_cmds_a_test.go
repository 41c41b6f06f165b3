package shell

// tableCmdsA holds rows for the commands from "awk" to "ls" (alphabetical).
var tableCmdsA = []row{}
