// build.mjs turns every pages/NAME.txt (its first line the title, the rest
// paragraphs split by blank lines) into dist/NAME.html, and writes
// dist/index.html linking them all, in name order.
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";

const esc = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const page = (title, body) =>
  `<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>${esc(title)}</title></head>\n<body>\n${body}</body>\n</html>\n`;

await rm("dist", { recursive: true, force: true });
await mkdir("dist");
const names = (await readdir("pages")).filter((n) => n.endsWith(".txt")).sort();
const links = [];
for (const name of names) {
  const [title, ...rest] = (await readFile(`pages/${name}`, "utf8")).trimEnd().split("\n");
  const paras = rest.join("\n").split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean);
  const html = name.replace(/\.txt$/, ".html");
  await writeFile(`dist/${html}`, page(title, `<h1>${esc(title)}</h1>\n` + paras.map((p) => `<p>${esc(p)}</p>\n`).join("")));
  links.push(`<li><a href="${html}">${esc(title)}</a></li>\n`);
}
await writeFile("dist/index.html", page("Site", `<h1>Site</h1>\n<ul>\n${links.join("")}</ul>\n`));
console.log(`built ${names.length} pages into dist/`);
