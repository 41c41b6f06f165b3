package shell

// tableCmdsB holds rows for the commands from "md5sum" to "zcat" (alphabetical).
var tableCmdsB = []row{}
