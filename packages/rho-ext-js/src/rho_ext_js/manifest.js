// Checks an extension's manifest (its default export) and describes it as plain data.
// The functions stay here; rho addresses them by tool, command or hook name.
(function (g) {
  "use strict";
  const RISKS = ["read", "write", "destructive"];
  const TYPES = ["string", "number", "boolean"];
  const HOOKS = ["onLoad", "onToolCall", "onToolResult", "onBeforeModel"];

  function fail(message) {
    throw new TypeError("invalid manifest: " + message);
  }
  function text(value, what, optional) {
    if (value === undefined && optional) return undefined;
    if (typeof value !== "string") fail(`${what} must be a string`);
    return value;
  }
  function list(value, what) {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) fail(`${what} must be an array`);
    return value;
  }
  function parameters(value, where) {
    if (value === undefined || value === null) return {};
    if (typeof value !== "object" || Array.isArray(value)) fail(`${where}.parameters must be an object`);
    const out = {};
    for (const [name, spec] of Object.entries(value)) {
      if (!spec || typeof spec !== "object") fail(`${where}.parameters.${name} must be an object`);
      if (!TYPES.includes(spec.type)) fail(`${where}.parameters.${name}.type must be one of ${TYPES.join(", ")}`);
      const param = { type: spec.type, required: spec.required === true };
      const description = text(spec.description, `${where}.parameters.${name}.description`, true);
      if (description !== undefined) param.description = description;
      out[name] = param;
    }
    return out;
  }
  function named(items, what, fnKey) {
    const seen = new Set();
    return items.map((item, index) => {
      if (!item || typeof item !== "object") fail(`${what}[${index}] must be an object`);
      const name = text(item.name, `${what}[${index}].name`);
      if (seen.has(name)) fail(`${what} has two entries named ${name}`);
      seen.add(name);
      if (typeof item[fnKey] !== "function") fail(`${what} ${name}: ${fnKey} must be a function`);
      return item;
    });
  }

  function describe(manifest) {
    if (!manifest || typeof manifest !== "object") fail("the default export must be an object");
    const name = text(manifest.name, "name");
    const version = text(manifest.version, "version", true);
    const tools = named(list(manifest.tools, "tools"), "tools", "execute");
    const commands = named(list(manifest.commands, "commands"), "commands", "handler");
    const hooks = manifest.hooks === undefined || manifest.hooks === null ? {} : manifest.hooks;
    if (typeof hooks !== "object") fail("hooks must be an object");
    const descriptor = {
      name,
      version: version === undefined ? null : version,
      tools: tools.map((tool) => {
        const where = `tool ${tool.name}`;
        if (!RISKS.includes(tool.risk)) fail(`${where}: risk must be one of ${RISKS.join(", ")}`);
        return {
          name: tool.name,
          description: text(tool.description, `${where}: description`),
          risk: tool.risk,
          parameters: parameters(tool.parameters, where),
        };
      }),
      hooks: HOOKS.filter((hook) => typeof hooks[hook] === "function"),
      commands: commands.map((command) => {
        const risk = command.risk === undefined ? "read" : command.risk;
        if (!RISKS.includes(risk)) fail(`command ${command.name}: risk must be one of ${RISKS.join(", ")}`);
        return {
          name: command.name,
          description: text(command.description, `command ${command.name}: description`, true) ?? "",
          risk,
        };
      }),
    };
    return { manifest: { tools, commands, hooks }, descriptor };
  }
  Object.defineProperty(g, "__rho_describe", { value: describe, enumerable: false });
})(globalThis);
