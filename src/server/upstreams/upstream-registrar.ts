import type { RegistrationHandle } from '../registry/registration-handle.js';
import type { PromptRegistration } from '../registry/prompt-registry.js';
import type { ResourceRegistration, ResourceTemplateRegistration } from '../registry/resource-registry.js';
import type { McpToolRegistration } from '../registry/tool-registration.js';

/** The run-time registration API the gateway mounts through (the kernel's, `MCPServer`'s). */
export interface UpstreamRegistrar {
  addTool(registration: McpToolRegistration): RegistrationHandle<McpToolRegistration>;
  addPrompt(registration: PromptRegistration): RegistrationHandle<PromptRegistration>;
  addResource(registration: ResourceRegistration): RegistrationHandle<ResourceRegistration>;
  addResourceTemplate(registration: ResourceTemplateRegistration): RegistrationHandle<ResourceTemplateRegistration>;
}
