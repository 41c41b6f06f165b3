package sandbox

// The subset of the OCI runtime specification (config.json, version 1.0) the
// backend writes. Field names and JSON tags follow
// github.com/opencontainers/runtime-spec/specs-go; the module is not imported
// to keep the dependency out of the build.

type ociSpec struct {
	OCIVersion string     `json:"ociVersion"`
	Process    ociProcess `json:"process"`
	Root       ociRoot    `json:"root"`
	Hostname   string     `json:"hostname"`
	Mounts     []ociMount `json:"mounts"`
	Linux      ociLinux   `json:"linux"`
}

type ociProcess struct {
	Terminal        bool        `json:"terminal"`
	User            ociUser     `json:"user"`
	Args            []string    `json:"args"`
	Env             []string    `json:"env"`
	Cwd             string      `json:"cwd"`
	Capabilities    ociCaps     `json:"capabilities"`
	Rlimits         []ociRlimit `json:"rlimits,omitempty"`
	NoNewPrivileges bool        `json:"noNewPrivileges"`
}

type ociUser struct {
	UID uint32 `json:"uid"`
	GID uint32 `json:"gid"`
}

type ociCaps struct {
	Bounding    []string `json:"bounding"`
	Effective   []string `json:"effective"`
	Permitted   []string `json:"permitted"`
	Inheritable []string `json:"inheritable"`
	Ambient     []string `json:"ambient"`
}

type ociRlimit struct {
	Type string `json:"type"`
	Hard uint64 `json:"hard"`
	Soft uint64 `json:"soft"`
}

type ociRoot struct {
	Path     string `json:"path"`
	Readonly bool   `json:"readonly"`
}

type ociMount struct {
	Destination string   `json:"destination"`
	Type        string   `json:"type"`
	Source      string   `json:"source"`
	Options     []string `json:"options,omitempty"`
}

type ociLinux struct {
	UIDMappings   []ociIDMap     `json:"uidMappings"`
	GIDMappings   []ociIDMap     `json:"gidMappings"`
	Resources     ociResources   `json:"resources"`
	CgroupsPath   string         `json:"cgroupsPath"`
	Namespaces    []ociNamespace `json:"namespaces"`
	Seccomp       *Seccomp       `json:"seccomp,omitempty"`
	MaskedPaths   []string       `json:"maskedPaths"`
	ReadonlyPaths []string       `json:"readonlyPaths"`
}

type ociIDMap struct {
	ContainerID uint32 `json:"containerID"`
	HostID      uint32 `json:"hostID"`
	Size        uint32 `json:"size"`
}

type ociNamespace struct {
	Type string `json:"type"`
}

type ociResources struct {
	Devices []ociDevice `json:"devices"`
	Memory  *ociMemory  `json:"memory,omitempty"`
	CPU     *ociCPU     `json:"cpu,omitempty"`
	Pids    *ociPids    `json:"pids,omitempty"`
}

type ociDevice struct {
	Allow  bool   `json:"allow"`
	Access string `json:"access"`
}

type ociMemory struct {
	Limit *int64 `json:"limit,omitempty"`
	Swap  *int64 `json:"swap,omitempty"`
}

type ociCPU struct {
	Shares *uint64 `json:"shares,omitempty"`
	Quota  *int64  `json:"quota,omitempty"`
	Period *uint64 `json:"period,omitempty"`
}

type ociPids struct {
	Limit int64 `json:"limit"`
}
