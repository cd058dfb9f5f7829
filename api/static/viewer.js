// Seed3D web viewer: three.js (vendored, served locally) with PBR lighting, and joint controls that move the
// parts of an articulated GLB. Seed3D GLBs have one node per part, named after the part and nested as the
// kinematic tree; a node's translation is its joint origin relative to its parent's, with identity rotation at
// rest (seed3d/export/glb.py). asset.json gives joints in Seed3D axes (+Z up, front +X); glTF axes are
// (X, Y, Z) = asset (y, z, x).

import * as THREE from "three";
import { GLTFLoader } from "three/addons/loaders/GLTFLoader.js";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";
import { RoomEnvironment } from "three/addons/environments/RoomEnvironment.js";

const MOVABLE = new Set(["revolute", "prismatic", "continuous"]);

/** A Seed3D asset-frame vector in glTF axes. */
export function assetToGltf([x, y, z]) {
  return [y, z, x];
}

/** One movable joint bound to the GLB node of its child part. */
export class JointControl {
  constructor(joint, node) {
    this.name = joint.name;
    this.type = joint.type;
    this.parent = joint.parent;
    this.child = joint.child;
    this.node = node;
    this.axis = new THREE.Vector3(...(joint.axis_gltf || assetToGltf(joint.axis))).normalize();
    if (joint.type === "continuous") {
      this.lower = -Math.PI;
      this.upper = Math.PI;
    } else {
      this.lower = Number(joint.lower);
      this.upper = Number(joint.upper);
    }
    this.restPosition = node.position.clone();
    this.restQuaternion = node.quaternion.clone();
    this.value = Math.min(Math.max(0, this.lower), this.upper);
    this.set(this.value);
  }

  /** Joint value in its unit: radians (revolute, continuous) or meters (prismatic), clamped to the limits. */
  set(q) {
    this.value = Math.min(Math.max(Number(q), this.lower), this.upper);
    if (this.type === "prismatic") {
      this.node.position.copy(this.restPosition).addScaledVector(this.axis, this.value);
    } else {
      const turn = new THREE.Quaternion().setFromAxisAngle(this.axis, this.value);
      this.node.quaternion.copy(this.restQuaternion).multiply(turn);
    }
    this.node.updateMatrixWorld(true);
  }

  /** The value as text a person reads (degrees or centimetres). */
  label(q = this.value) {
    return this.type === "prismatic" ? `${(q * 100).toFixed(1)} cm` : `${((q * 180) / Math.PI).toFixed(0)}°`;
  }
}

/** The 3D view in `container`: load a GLB, frame it, drive its joints; renders only when something changed. */
export class Viewer {
  constructor(container) {
    this.container = container;
    this.model = null;
    this.joints = [];
    this.renderer = new THREE.WebGLRenderer({ antialias: true, alpha: false, powerPreference: "high-performance" });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
    this.renderer.toneMapping = THREE.NeutralToneMapping;
    this.renderer.outputColorSpace = THREE.SRGBColorSpace;
    container.appendChild(this.renderer.domElement);

    this.scene = new THREE.Scene();
    this.scene.background = new THREE.Color(0xeef0f3);
    const pmrem = new THREE.PMREMGenerator(this.renderer);
    this.scene.environment = pmrem.fromScene(new RoomEnvironment(), 0.04).texture;
    pmrem.dispose();
    const sun = new THREE.DirectionalLight(0xffffff, 1.2);
    sun.position.set(2, 4, 3);
    this.scene.add(sun);
    this.grid = new THREE.GridHelper(4, 40, 0x9aa3ad, 0xcfd5db);
    this.scene.add(this.grid);

    this.camera = new THREE.PerspectiveCamera(40, 1, 0.01, 100);
    this.camera.position.set(1.2, 1.0, 2.0);
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.addEventListener("change", () => this.requestRender());
    this.loader = new GLTFLoader();

    this.pending = false;
    new ResizeObserver(() => this.resize()).observe(container);
    this.resize();
    this.setState("empty");
  }

  setState(state) {
    this.container.dataset.state = state;
  }

  resize() {
    const w = Math.max(this.container.clientWidth, 1);
    const h = Math.max(this.container.clientHeight, 1);
    this.renderer.setSize(w, h, false);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.requestRender();
  }

  /** Render at the next animation frame; `data-render` is "pending" until that frame is drawn, then "done". */
  requestRender() {
    this.container.dataset.render = "pending";
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.renderer.render(this.scene, this.camera);
      this.container.dataset.frames = String(Number(this.container.dataset.frames || 0) + 1);
      this.container.dataset.render = "done";
    });
  }

  /** Remove the current model and free its GPU memory. */
  clear() {
    if (!this.model) return;
    this.scene.remove(this.model);
    this.model.traverse((obj) => {
      if (!obj.isMesh) return;
      obj.geometry.dispose();
      for (const mat of [].concat(obj.material)) {
        for (const value of Object.values(mat)) if (value && value.isTexture) value.dispose();
        mat.dispose();
      }
    });
    this.model = null;
    this.joints = [];
    delete this.container.dataset.meshes;
    delete this.container.dataset.parts;
    this.setState("empty");
    this.requestRender();
  }

  /** Show the GLB in `buffer` (an ArrayBuffer); resolves with the number of meshes. */
  async show(buffer) {
    this.clear();
    this.setState("loading");
    const gltf = await this.loader.parseAsync(buffer, "");
    this.model = gltf.scene;
    this.scene.add(this.model);
    let meshes = 0;
    this.model.traverse((obj) => {
      if (obj.isMesh) meshes += 1;
    });
    this.container.dataset.meshes = String(meshes);
    this.frame();
    this.setState("ready");
    this.requestRender();
    return meshes;
  }

  /** Point the camera at the model from the front-right, above; size the grid to it. */
  frame() {
    const box = new THREE.Box3().setFromObject(this.model);
    if (box.isEmpty()) return;
    const size = box.getSize(new THREE.Vector3());
    const center = box.getCenter(new THREE.Vector3());
    const radius = Math.max(size.length() / 2, 1e-3);
    const fov = THREE.MathUtils.degToRad(this.camera.fov);
    const distance = (radius / Math.sin(fov / 2)) * 1.1;
    const dir = new THREE.Vector3(0.7, 0.45, 1.0).normalize();
    this.camera.position.copy(center).addScaledVector(dir, distance);
    this.camera.near = distance / 100;
    this.camera.far = distance * 100;
    this.camera.updateProjectionMatrix();
    this.controls.target.copy(center);
    this.controls.update();
    const extent = Math.max(size.x, size.z) * 3;
    this.grid.scale.setScalar(Math.max(extent, 0.1) / 4);
    this.grid.position.y = box.min.y;
  }

  /**
   * Bind the movable joints of `asset` (asset.json) to the model's nodes; returns the JointControls.
   * A joint whose child part has no node in the GLB is left out with a console warning.
   */
  bindJoints(asset) {
    this.joints = [];
    if (!this.model) return this.joints;
    const names = new Set((asset.parts || []).map((p) => p.name));
    this.container.dataset.parts = String(names.size);
    for (const joint of asset.joints || []) {
      if (!MOVABLE.has(joint.type)) continue;
      const node = this.model.getObjectByName(joint.child);
      if (!node) {
        console.warn(`seed3d: joint ${joint.name}: the GLB has no node named ${joint.child}`);
        continue;
      }
      this.joints.push(new JointControl(joint, node));
    }
    this.requestRender();
    return this.joints;
  }

  /** Set joint `name` to `q` and redraw. */
  setJoint(name, q) {
    const control = this.joints.find((j) => j.name === name);
    if (!control) throw new Error(`no movable joint named ${name}`);
    control.set(q);
    this.requestRender();
    return control.value;
  }

  /** World position (glTF axes) of part `name`'s node, or null. */
  partPosition(name) {
    const node = this.model?.getObjectByName(name);
    if (!node) return null;
    node.updateWorldMatrix(true, false);
    return node.getWorldPosition(new THREE.Vector3()).toArray();
  }

  /** World-space bounding box of part `name`'s node and its children, as [min, max], or null. */
  partBounds(name) {
    const node = this.model?.getObjectByName(name);
    if (!node) return null;
    const box = new THREE.Box3().setFromObject(node);
    return [box.min.toArray(), box.max.toArray()];
  }
}
