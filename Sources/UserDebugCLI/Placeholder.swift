public enum UserDebugCLIPlaceholder {}
