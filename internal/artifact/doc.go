package artifact
