export { createMswDispatcher, MswDispatcher, type HandlerSource } from './msw-dispatcher.js';
