export const PLUGIN_NAME = '@switchyard/plugin-tenants';
