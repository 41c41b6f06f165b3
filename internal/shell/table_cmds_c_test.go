package shell

// tableCmdsC holds rows for od, split and csplit.
var tableCmdsC = []row{}
