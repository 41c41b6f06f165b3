package shell

// C2 adds two commits after S's, on a.txt.
const C2 = "echo 2 >> a.txt && git commit -qam two && echo 3 >> a.txt && git commit -qam three && "

// gitDescribeTable holds the differential rows of git describe; they join
// gitTable.
var gitDescribeTable = []gitRow{
	{name: "describe no names", script: S + "git describe; echo $?; git describe --tags; echo $?; git describe --always"},
	{name: "describe annotated", script: S + "git tag -a -m v1 v1 && git describe && " + C2 + "git describe && git describe --long && git describe --abbrev=10 && git describe --abbrev=0 && git describe HEAD~1 HEAD~2"},
	{name: "describe lightweight", script: S + "git tag light && " + C2 + "git describe; echo $?; git describe --tags && git describe --always"},
	{name: "describe annotated over lightweight", script: S + "git tag a-light && git tag -a -m ann z-ann && git describe --tags && echo m >> a.txt && git commit -qam m && git tag m-light && git describe --tags && git describe"},
	{name: "describe exact --long", script: S + "git tag -a -m v1 v1 && git describe --long && git describe --exact-match && echo m >> a.txt && git commit -qam m && git describe --exact-match; echo $?"},
	{name: "describe nearest of several", script: S + "git tag -a -m v1 v1 && " + C2 + "git tag -a -m v2 v2 && echo 4 >> a.txt && git commit -qam four && git describe && git describe HEAD~2 && git describe --candidates=1"},
	{name: "describe --dirty", script: S + "git tag -a -m v1 v1 && git describe --dirty && echo x >> a.txt && git describe --dirty && git describe --dirty=.mod && git add a.txt && git describe --dirty && echo n > untracked && git reset -q --hard && git describe --dirty; git describe --dirty HEAD; echo $?"},
	{name: "describe --always --dirty no tags", script: S + "echo x >> a.txt && git describe --always --dirty && git describe --always --abbrev=12"},
	{name: "describe bad revision", script: S + "git tag -a -m v1 v1 && git describe nope; echo $?"},
	{name: "describe unborn", script: "git init -q && git describe; echo $?"},
	{name: "describe merge", script: S + "git tag -a -m base base && git checkout -qb side && echo s >> b.txt && GIT_COMMITTER_DATE='@1700000100 +0100' git commit -qam side && git tag -a -m side side-tag && git checkout -q master && echo m >> a.txt && GIT_COMMITTER_DATE='@1700000200 +0100' git commit -qam main && GIT_COMMITTER_DATE='@1700000300 +0100' git merge -q --no-ff -m merge side && git describe && git describe --first-parent && echo n >> a.txt && GIT_COMMITTER_DATE='@1700000400 +0100' git commit -qam after && git describe && git describe --tags --first-parent"},
	{name: "describe two annotated on one commit", script: S + "GIT_COMMITTER_DATE='@1700000100 +0100' git tag -a -m old b-old && GIT_COMMITTER_DATE='@1700000200 +0100' git tag -a -m new a-new && " + C2 + "git describe"},
	{name: "describe a tag name", script: S + "git tag -a -m v1 v1 && " + C2 + "git describe v1 && git describe v1~0 && git describe master"},
}

func init() { gitTable = append(gitTable, gitDescribeTable...) }
