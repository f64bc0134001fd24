"""Glue for the agent frameworks that run model-written code: import the
one you use (`stockade.integrations.smolagents`,
`stockade.integrations.langchain`); each needs its framework installed
(`pip install stockade[smolagents]`, `stockade[langchain]`). The core
package never imports them."""
