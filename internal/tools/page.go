package tools

// pageArgs validates offset and limit against a default and a maximum.
func pageArgs(name string, offset, limit, def, max int) (int, int, error) {
	if offset < 0 || limit < 0 {
		return 0, 0, errorf(CodeInvalid, "%s: offset and limit must not be negative", name)
	}
	if limit == 0 {
		limit = def
	}
	return offset, min(limit, max), nil
}
